//go:build linux

package testhost

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
)

// The one Python project the index serves, by its PEP 503 normalised name
// and as a wheel's distribution name.
const (
	pypiProject = "pathgrant-test-pkg"
	pypiDist    = "pathgrant_test_pkg"
	pypiVersion = "1.0.0"
)

// pypiWheelName is the wheel's file name: pure Python, any platform.
const pypiWheelName = pypiDist + "-" + pypiVersion + "-py3-none-any.whl"

// pypiIndex is a PEP 503 simple index of one project with one wheel.
type pypiIndex struct {
	wheel []byte
}

// newPyPIIndex builds the wheel.
func newPyPIIndex() (*pypiIndex, error) {
	whl, err := pypiWheel()
	if err != nil {
		return nil, err
	}
	return &pypiIndex{wheel: whl}, nil
}

// routes serves the root page, the project page (with and without its
// trailing slash: clients differ) and the wheel.
func (p *pypiIndex) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /pypi/simple/{$}", func(w http.ResponseWriter, _ *http.Request) {
		writeHTML(w, `<a href="`+pypiProject+`/">`+pypiProject+`</a>`)
	})
	project := func(w http.ResponseWriter, _ *http.Request) {
		sum := sha256.Sum256(p.wheel)
		writeHTML(w, `<a href="../../files/`+pypiWheelName+`#sha256=`+hex.EncodeToString(sum[:])+`">`+pypiWheelName+`</a>`)
	}
	mux.HandleFunc("GET /pypi/simple/"+pypiProject+"/{$}", project)
	mux.HandleFunc("GET /pypi/simple/"+pypiProject, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"/", http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /pypi/files/"+pypiWheelName, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(p.wheel)
	})
}

// writeHTML writes a PEP 503 page around body.
func writeHTML(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" content=\"1.0\"></head><body>\n%s\n</body></html>\n", body)
}

// pypiWheel is the wheel: the package, METADATA, WHEEL and a RECORD whose
// digests pip checks on install.
func pypiWheel() ([]byte, error) {
	info := pypiDist + "-" + pypiVersion + ".dist-info/"
	files := []struct{ name, body string }{
		{pypiDist + "/__init__.py", "HELLO = \"hello from " + pypiProject + "\"\n"},
		{info + "METADATA", "Metadata-Version: 2.1\nName: " + pypiProject + "\nVersion: " + pypiVersion + "\nSummary: the pathgrant test host's Python package\n"},
		{info + "WHEEL", "Wheel-Version: 1.0\nGenerator: pathgrant-testhost\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
	}
	var record strings.Builder
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		if err := addZipFile(zw, f.name, f.body); err != nil {
			return nil, err
		}
		sum := sha256.Sum256([]byte(f.body))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", f.name, base64.RawURLEncoding.EncodeToString(sum[:]), len(f.body))
	}
	record.WriteString(info + "RECORD,,\n")
	if err := addZipFile(zw, info+"RECORD", record.String()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("closing the wheel: %w", err)
	}
	return buf.Bytes(), nil
}

// addZipFile adds a regular file with the fixed fixture time.
func addZipFile(zw *zip.Writer, name, body string) error {
	hdr := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: fixtureTime()}
	hdr.SetMode(0o644)
	w, err := zw.CreateHeader(hdr)
	if err != nil {
		return fmt.Errorf("adding %s to a zip: %w", name, err)
	}
	if _, err := w.Write([]byte(body)); err != nil {
		return fmt.Errorf("writing %s to a zip: %w", name, err)
	}
	return nil
}
