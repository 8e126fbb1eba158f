package blob

// SetPartSize makes an S3 store's writes go up in parts of n bytes, so a
// test reaches the multipart path without writing 8 MiB.
func SetPartSize(s *Store, n int) { s.s3.partSize = n }
