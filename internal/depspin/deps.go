package deps
import (
 _ "github.com/tidwall/gjson"
 _ "golang.org/x/sync/errgroup"
 _ "github.com/google/go-cmp/cmp"
 _ "github.com/rs/zerolog"
 _ "github.com/google/jsonschema-go/jsonschema"
 _ "github.com/tiktoken-go/tokenizer"
 _ "github.com/yuin/goldmark"
 _ "go.yaml.in/yaml/v3"
 _ "github.com/titanous/json5"
 _ "go.uber.org/goleak"
 _ "github.com/google/uuid"
)
