package alerts

import "github.com/agentry/agentry/internal/store"

// AlertConfig is an alert configuration, under this area's name so that
// its callers (the API) need not import the store. Interim: an alias of
// the store's type, which an agent import still writes through the store
// (store.NewAgent.AlertConfigs).
type AlertConfig = store.AlertConfig
