package spooledartifact

// CallTool lets the external tests run a forged tool the way the
// package's own tests do.
var CallTool = call
