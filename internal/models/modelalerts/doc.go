// Package modelalerts owns the model lifecycle as it touches accounts: the
// alerts raised when a model an agent uses is deprecated, nears or reaches
// its sunset, or has a newer sibling; the automatic upgrades an agent's
// strategy asks for, and their rollback when failures follow. Decisions
// come from the pure rules of internal/models/lifecycle; this package
// reads agents, applies the decisions through the agents store, and
// records alerts. Two periodic jobs drive it; the server has the agents
// area call CheckAgent when an agent is saved (agents.Config.OnSaved), and
// new alerts raise the alerts area's configs through the Raiser it wires.
package modelalerts
