package store

// AlertsQueries exposes the inbox's queries, for their plans.
func AlertsQueries(accountID string, f AlertFilter) (count, page string, args []any) {
	return alertsQueries(accountID, f)
}
