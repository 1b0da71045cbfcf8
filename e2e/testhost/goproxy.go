//go:build linux

package testhost

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// The one Go module the proxy serves.
const (
	goModule  = "pathgrant.test/mod"
	goVersion = "v1.0.0"
)

// goModFile is the module's go.mod, served as .mod and inside the zip: the
// go command compares the two.
const goModFile = "module " + goModule + "\n\ngo 1.21\n"

// goSource is the module's one source file.
const goSource = "package mod\n\nconst Hello = \"hello\"\n"

// goProxy is a GOPROXY protocol tree (`go help goproxy`) for one module
// version, what `go mod download` and `go get` fetch.
type goProxy struct {
	info []byte
	zip  []byte
}

// newGoProxy builds the version's .info and .zip.
func newGoProxy() (*goProxy, error) {
	info, err := json.Marshal(struct {
		Version string
		Time    string
	}{goVersion, fixtureTime().Format(time.RFC3339)})
	if err != nil {
		return nil, fmt.Errorf("encoding the module's .info: %w", err)
	}
	z, err := goModuleZip()
	if err != nil {
		return nil, err
	}
	return &goProxy{info: info, zip: z}, nil
}

// routes serves @v/list, @latest and the version's .info, .mod and .zip.
func (p *goProxy) routes(mux *http.ServeMux) {
	base := "GET /go/" + goModule + "/@"
	serve := func(pattern, contentType string, body []byte) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.Write(body)
		})
	}
	serve(base+"v/list", "text/plain; charset=utf-8", []byte(goVersion+"\n"))
	serve(base+"latest", "application/json", p.info)
	serve(base+"v/"+goVersion+".info", "application/json", p.info)
	serve(base+"v/"+goVersion+".mod", "text/plain; charset=utf-8", []byte(goModFile))
	serve(base+"v/"+goVersion+".zip", "application/zip", p.zip)
}

// goModuleZip is the module zip, every file under module@version/ as the
// go command requires.
func goModuleZip() ([]byte, error) {
	prefix := goModule + "@" + goVersion + "/"
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range []struct{ name, body string }{
		{prefix + "go.mod", goModFile},
		{prefix + "mod.go", goSource},
	} {
		if err := addZipFile(zw, f.name, f.body); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("closing the module zip: %w", err)
	}
	return buf.Bytes(), nil
}
