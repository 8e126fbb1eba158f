package llm

import (
	"context"
	"fmt"
	"sync"
)

// MemoryMeter is an in-process Meter with per-account balances, for tests
// and tools that run without the credits store. Authorize refuses when the
// estimate exceeds the balance; Record debits (a balance may go negative
// when a call costs more than estimated, as a real ledger allows).
type MemoryMeter struct {
	mu       sync.Mutex
	balances map[string]int64
	records  []UsageRecord
}

// NewMemoryMeter returns a meter with the given starting balances.
func NewMemoryMeter(balances map[string]int64) *MemoryMeter {
	m := &MemoryMeter{balances: map[string]int64{}}
	for k, v := range balances {
		m.balances[k] = v
	}
	return m
}

// Authorize implements Meter.
func (m *MemoryMeter) Authorize(_ context.Context, account string, estimate int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if bal := m.balances[account]; bal <= 0 || bal < estimate {
		return fmt.Errorf("account %s has %d credits, call needs about %d: %w", account, bal, estimate, ErrInsufficientCredits)
	}
	return nil
}

// Record implements Meter.
func (m *MemoryMeter) Record(_ context.Context, rec UsageRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.balances[rec.AccountID] -= rec.Credits
	m.records = append(m.records, rec)
	return nil
}

// Balance returns an account's balance.
func (m *MemoryMeter) Balance(account string) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.balances[account]
}

// Records returns what was recorded so far.
func (m *MemoryMeter) Records() []UsageRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]UsageRecord(nil), m.records...)
}
