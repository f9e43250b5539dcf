// Package forgestate lends the turn runner what package forge keeps to
// itself: how many times a tool registry has changed. The runner registers
// the artifact tools into a dispatch's registry, and registers them again
// only when something else changed that registry since.
//
// Package forge registers its accessor when it is initialised, so before
// any package that imports it runs.
package forgestate

var changes func(reg any) uint64

// Register records forge's accessor. Only forge calls it, once, from its
// init.
func Register(f func(reg any) uint64) { changes = f }

// Changes reports how many times reg, a *forge.Registry, has changed: it
// grows with every registration, hiding, unhiding and pruning.
func Changes(reg any) uint64 { return changes(reg) }
