// Package spooledartifact spools tool output to a store and gives the model
// line-indexed, queryable handles to it through forged artifact_* tools.
//
// Tool output can be gigabytes (a log dump, a database export). Instead of
// pasting it into the prompt, the turn runner spools the bytes into a
// [Store], the model sees a short handle ([RenderHandle]), and it reads the
// artifact through turn-scoped query tools (a [Forger] forges them).
//
// # Stores
//
// [NewMemoryStore] keeps bytes in memory; [NewDiskStore] keeps small
// artifacts in memory and streams big ones (above 4 MiB by default) to files,
// building a sparse line index in the same pass (at most one checkpoint per
// 64 KiB), so memory stays bounded however large the
// artifact and however dense its newlines. Writing an id again replaces it
// atomically, and readers are snapshots. Ids are validated ([ValidateID])
// and base32-encoded on disk: no path traversal, no case-folding collisions,
// no device names. A [Scope] prefixes a turn's ids and deletes them all on
// [Scope.Cleanup], closing the files of their readers so the disk space is
// freed at once; both stores are a [Sweeper] for a TTL policy the caller
// schedules, sparing the ids still in use (the turn runner's running turns)
// however old.
//
//	store, _ := spooledartifact.NewDiskStore(dir, nil)
//	turn := spooledartifact.NewScope(store, turnID, nil)
//	defer turn.Cleanup(ctx)
//	art, _ := spooledartifact.Spool(ctx, turn, call.ID, nil, output)
//
// # Queries
//
// An [Artifact] answers Head, Tail, Cat (half-open, clamped), Grep (RE2,
// linear time, with optional caps and context lines), ByteLength, LineCount
// and EstimateTokens. Lines are split on '\n' only ('\r' stays), numbered
// from 0; "" has 0 lines, and a final '\n' ends the last line rather than
// starting another: "a\nb\n" has 2, as a JSON Lines export of n records
// has n. ReadAll and Copy are
// byte-faithful, invalid UTF-8 included. Head, Tail and Cat cost what they
// return; Grep streams the content in cache-sized 256 KiB chunks, finds a
// literal pattern with bytes.Index, and for a regex searches its rarest
// required literal first and checks only the text around each hit (anchored
// RE2 matches); a regex with no literal is matched line by line.
//
// # Tools and kinds
//
// A [Forger] builds the seven base tools (artifact_head, artifact_tail,
// artifact_grep, artifact_cat, artifact_byte_length, artifact_line_count,
// artifact_estimate_tokens) over a turn's artifact results. Their schemas
// are static (callId is a plain string), so they are forged once; an
// unknown id is an argument error that lists the ids the tool can query.
// Results of artifact tools are left out, so the model cannot grep a grep.
// A [Kind] (the JSON and Markdown kinds live in subpackages) wraps spooled bytes in a richer artifact and
// adds its own [Method]s, forged for that kind's artifacts only;
// [EffectiveMethods] is the resulting tool set. [HandleAbove] is an opt-in
// hook that turns big results into handles; results are inline by default.
package spooledartifact
