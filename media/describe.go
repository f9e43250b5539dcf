package media

import "encoding/json"

// Describer is implemented by readers that can be persisted. ok is false
// when this particular reader cannot describe itself (a wrapper over a
// reader that cannot, say).
type Describer interface {
	Describe() (tag string, locator json.RawMessage, ok bool)
}

// Descriptor is a persisted reader: a tag naming the reader type and a
// tag-specific locator.
type Descriptor struct {
	Tag     string          `json:"tag"`
	Locator json.RawMessage `json:"locator"`
}

// DescribeReader asks r for its descriptor; a reader that is not a
// [Describer], or declines, yields [ErrReaderNotDescribable].
func DescribeReader(r Reader) (Descriptor, error) {
	d, ok := r.(Describer)
	if !ok || isNil(r) {
		return Descriptor{}, ErrReaderNotDescribable.With(nil, "media: %T cannot describe itself", r)
	}
	tag, loc, ok := d.Describe()
	if !ok || tag == "" {
		return Descriptor{}, ErrReaderNotDescribable.With(nil, "media: %T declined to describe itself", r)
	}
	return Descriptor{Tag: tag, Locator: loc}, nil
}

// ResolveOptions says which descriptors [ResolveReader] may turn back into
// readers. A nil *ResolveOptions resolves only in-memory descriptors: file
// and HTTP locators are capabilities (read a local file, fetch a URL) that
// persisted data must not grant on its own.
type ResolveOptions struct {
	// AllowFile enables [TagFile].
	AllowFile bool
	// HTTP, when non-nil, enables [TagHTTP]; its Client and Header are used
	// and its MaxBytes, when positive, caps the persisted limit.
	HTTP *HTTPOptions
	// Custom resolves further tags; it is consulted before the built-ins.
	Custom map[string]func(locator json.RawMessage) (Reader, error)
}

// ResolveReader rebuilds a reader from its descriptor. An unknown or
// disabled tag yields [ErrNoReaderResolver]; a locator that does not decode
// yields [ErrInvalidReaderLocator].
func ResolveReader(d Descriptor, opts *ResolveOptions) (Reader, error) {
	if opts == nil {
		opts = &ResolveOptions{}
	}
	if f, ok := opts.Custom[d.Tag]; ok && f != nil {
		return f(d.Locator)
	}
	switch d.Tag {
	case TagInMemory:
		var loc memoryLocator
		if err := decodeLocator(d, &loc); err != nil {
			return nil, err
		}
		return &MemoryReader{b: loc.BytesBase64}, nil
	case TagFile:
		if !opts.AllowFile {
			break
		}
		var loc fileLocator
		if err := decodeLocator(d, &loc); err != nil {
			return nil, err
		}
		return NewFileReader(loc.Path)
	case TagHTTP:
		if opts.HTTP == nil {
			break
		}
		var loc httpLocator
		if err := decodeLocator(d, &loc); err != nil {
			return nil, err
		}
		o := *opts.HTTP
		if o.MaxBytes <= 0 || (loc.MaxBytes > 0 && loc.MaxBytes < o.MaxBytes) {
			o.MaxBytes = loc.MaxBytes
		}
		return NewHTTPReader(loc.URL, &o)
	}
	return nil, ErrNoReaderResolver.With(nil, "media: no resolver for reader tag %q", d.Tag)
}

func decodeLocator(d Descriptor, v any) error {
	if err := json.Unmarshal(d.Locator, v); err != nil {
		return ErrInvalidReaderLocator.With(err, "media: %s locator", d.Tag)
	}
	return nil
}

// Ensure the built-ins stay describable.
var (
	_ Describer = (*MemoryReader)(nil)
	_ Describer = (*FileReader)(nil)
	_ Describer = (*HTTPReader)(nil)
)
