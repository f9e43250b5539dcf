#!/usr/bin/env bash
# sdk_decode.sh: the provider adapters' stream decoding against the official
# SDKs (openai-go, anthropic-sdk-go, genai), on the same generated streams, in the
# same run. The SDKs live only in the nested module bench/sdkdecode.
#
#   bash bench/sdk_decode.sh               # 9 alternating rounds of 10 streams
#   ROUNDS=15 REPS=20 bash bench/sdk_decode.sh
set -euo pipefail
cd "$(dirname "$0")/sdkdecode"
go run . -rounds "${ROUNDS:-9}" -reps "${REPS:-10}"
