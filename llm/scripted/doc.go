// Package scripted is a deterministic, offline language model for tests,
// examples and demos: a [llm.Model] that plays a script.
//
// Each [Step] is one model response — thought chunks, text chunks, tool
// calls (by name, with raw JSON arguments, optionally streamed in pieces),
// usage, a stop reason and an optional mid-stream error:
//
//	model := scripted.New(
//		scripted.Use(scripted.Call{ID: "c1", Name: "fetch_logs", Args: `{"service":"api"}`}),
//		scripted.Say("The API is healthy."),
//	)
//
// For behaviour that depends on what the model was sent (for example
// calling artifact_grep with the callId it saw), build it with [NewFunc].
//
// The model records every [llm.Request] it receives; tests read them
// with [Model.Requests] to assert what the model saw, and render tool
// results with llm.RenderResult. Calling the model more often than
// the script has steps yields [ErrScriptExhausted].
package scripted
