// Command gen-sdk writes the SDKs of the `proxy` provider plugin from its schema, for Node.js, Python, Go and .NET.
//
// It calls the same generators that `pulumi package gen-sdk` reaches through each language's host. The CLI built
// here cannot: since v3.1xx it asks the language host of each language to generate the package (GeneratePackage),
// and the hosts that implement that RPC are Go modules the module proxy of these machines refuses (docs/contributing/plugin.md).
// pkg/v3 v3.170.0 is the release pulumi-yaml v1.19.1 builds with, and the newest one here that still carries the
// .NET generator.
//
// Usage: gen-sdk <schema.json> <version> <out dir>; writes <out dir>/{nodejs,python,go,dotnet}.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/dotnet"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const tool = "pulumi-proxy gen-sdk"

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: gen-sdk <schema.json> <version> <out dir>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "gen-sdk:", err)
		os.Exit(1)
	}
}

// offlineLogo answers the one download the .NET generator makes, Pulumi's logo for the NuGet package, with a plain
// image: these machines reach no web host, and the generated SDK must not depend on the network.
type offlineLogo struct{}

func (offlineLogo) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(r.URL.Path, ".png") {
		return nil, fmt.Errorf("gen-sdk makes no downloads but the logo (asked for %s)", r.URL)
	}
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for x := 16; x < 48; x++ {
		for y := 16; y < 48; y++ {
			img.Set(x, y, color.RGBA{0x80, 0x5a, 0xc3, 0xff})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"image/png"}},
		Body: io.NopCloser(&buf), ContentLength: int64(buf.Len()), Request: r,
	}, nil
}

func run(schemaPath, version, out string) error {
	http.DefaultClient.Transport = offlineLogo{}

	text, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(text, &spec); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	spec.Version = version

	generators := map[string]func(*schema.Package) (map[string][]byte, error){
		"nodejs": func(p *schema.Package) (map[string][]byte, error) {
			return nodejs.GeneratePackage(tool, p, nil, nil, false, nil)
		},
		"python": func(p *schema.Package) (map[string][]byte, error) {
			return python.GeneratePackage(tool, p, nil, nil)
		},
		"go": func(p *schema.Package) (map[string][]byte, error) {
			return gogen.GeneratePackage(tool, p, nil)
		},
		"dotnet": func(p *schema.Package) (map[string][]byte, error) {
			return dotnet.GeneratePackage(tool, p, nil, nil)
		},
	}
	for _, language := range []string{"nodejs", "python", "go", "dotnet"} {
		// Each generator records its language's options in the package, so each gets a fresh binding.
		pkg, diags, err := schema.BindSpec(spec, nil, schema.ValidationOptions{})
		if err != nil {
			return err
		}
		if diags.HasErrors() {
			return fmt.Errorf("the schema is not valid: %s", diags.Error())
		}
		files, err := generators[language](pkg)
		if err != nil {
			return fmt.Errorf("%s: %w", language, err)
		}
		dir := filepath.Join(out, language)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		for name, content := range files {
			path := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
