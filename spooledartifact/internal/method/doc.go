// Package method holds what the query methods of the artifact kinds share,
// so every artifact tool reads the model's arguments and reports a capped
// answer the same way: IntArg and StringArg read arguments (a bad one is an
// error matching forge.ErrInvalidToolArgs), CapAnswer and CapAnswerOf cut an
// answer at a byte cap with a note saying how to continue, IndentJSON lays
// out JSON up to such a cap, and LimitOr reads a kind's zero limit as its
// default.
package method
