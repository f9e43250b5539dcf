package media_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ebbforge/adk/media"
)

// json.Unmarshal into a *Media fails with a coded error naming FromRecord,
// rather than succeeding with an empty value; the Metadata route works.
func TestUnmarshalJSONRefused(t *testing.T) {
	m, err := media.New(media.Raw{ID: "m1", Kind: media.KindImage, MIMEType: "image/png", Filename: "a.png",
		Reader: media.NewMemoryReader([]byte("png")), TrustTier: media.FirstParty, Hazard: media.OpaquePerceptual})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var got media.Media
	err = json.Unmarshal(data, &got)
	if !errors.Is(err, media.ErrInvalidInitialMediaValue) || !strings.Contains(err.Error(), "media.FromRecord") {
		t.Fatalf("json.Unmarshal(&Media) = %v, want ErrInvalidInitialMediaValue naming FromRecord", err)
	}
	var holder struct{ M *media.Media }
	if err := json.Unmarshal([]byte(`{"M":{"id":"x"}}`), &holder); !errors.Is(err, media.ErrInvalidInitialMediaValue) {
		t.Errorf("nested *Media: err = %v", err)
	}
	var md media.Metadata
	if err := json.Unmarshal(data, &md); err != nil || md.ID != "m1" {
		t.Errorf("Metadata decode = %+v, %v", md, err)
	}
}
