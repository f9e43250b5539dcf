// Package forgestate lends other packages of the kit what package forge
// keeps to itself:
//
//   - how many times a tool registry has changed: the runner registers
//     the artifact tools into a dispatch's registry, and registers them
//     again only when something else changed that registry since;
//   - a copy of an artifact tool answering with another handler: package
//     spooledartifact forges its query tools once, as templates, and gives
//     each turn copies bound to that turn's artifacts.
//
// Package forge registers its accessors when it is initialised, so before
// any package that imports it runs.
package forgestate

var (
	changes     func(reg any) uint64
	withHandler func(tool, handler any) any
)

// Register records forge's accessors. Only forge calls it, once, from its
// init.
func Register(changesOf func(reg any) uint64, withHandlerOf func(tool, handler any) any) {
	changes, withHandler = changesOf, withHandlerOf
}

// Changes reports how many times reg, a *forge.Registry, has changed: it
// grows with every registration, hiding, unhiding and pruning that
// removes a tool.
func Changes(reg any) uint64 { return changes(reg) }

// WithHandler returns a copy of tool, a *forge.Tool made by
// forge.NewArtifactTool, that answers with handler, a function of the type
// that constructor takes. The copy shares the tool's schema, resolved at
// most once for both.
func WithHandler(tool, handler any) any { return withHandler(tool, handler) }
