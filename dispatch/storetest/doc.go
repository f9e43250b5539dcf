// Package storetest is the conformance suite for implementations of
// dispatch.ConversationStore, in the spirit of testing/slogtest: a store
// package calls [Run] from its own tests with a [Harness] that opens (and
// reopens) its store.
//
// The suite checks order and in-place replacement of entries, deletion,
// conversations (turn order, listing, deletion), turn states and the open
// gates of a suspended turn, history limits, concurrent writers, a turn
// cut off in the middle (what was saved is kept; the unfinished turn is
// marked interrupted once the conversation moves on, and its unfinished
// tool calls come back as interrupted) and, for durable stores, reopening.
package storetest
