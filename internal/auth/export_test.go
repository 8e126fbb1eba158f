package auth

// TouchAPIKeys lets the repository's test record a key's use as the
// authenticator does.
var TouchAPIKeys = touchAPIKeys
