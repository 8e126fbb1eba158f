package feeds

import "time"

// SetFetchTimeout shortens the fetch bound for a test; the returned func
// restores it.
func SetFetchTimeout(d time.Duration) func() {
	old := fetchTimeout
	fetchTimeout = d
	return func() { fetchTimeout = old }
}
