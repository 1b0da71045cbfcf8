//go:build linux

package testhost

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"time"
)

// hostName is the DNS name the server certificate also carries, for a
// test that resolves it (an /etc/hosts line, a proxy's own resolver).
const hostName = "host.pathgrant.test"

// certs is a fresh CA, made per host so no test trusts another's, and the
// server certificate it signed.
type certs struct {
	caPEM  []byte
	server tls.Certificate
}

// makeCerts makes the CA and a server certificate for addr and hostName.
func makeCerts(addr netip.Addr) (*certs, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making the CA key: %w", err)
	}
	caTmpl, err := template("pathgrant test host CA")
	if err != nil {
		return nil, err
	}
	caTmpl.IsCA = true
	caTmpl.BasicConstraintsValid = true
	caTmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("signing the CA: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("reading back the CA: %w", err)
	}
	server, err := serverCert(ca, caKey, addr)
	if err != nil {
		return nil, err
	}
	return &certs{caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), server: server}, nil
}

// serverCert is the leaf the HTTPS listener presents: both SANs, so a
// client may name the host by address or by hostName.
func serverCert(ca *x509.Certificate, caKey *ecdsa.PrivateKey, addr netip.Addr) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("making the server key: %w", err)
	}
	tmpl, err := template(addr.String())
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	tmpl.IPAddresses = []net.IP{addr.AsSlice()}
	tmpl.DNSNames = []string{hostName}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("signing the server certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// template is a certificate valid from an hour ago (a clock a little
// behind still accepts it) for a day, longer than any test run.
func template(cn string) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, fmt.Errorf("making a serial number: %w", err)
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn, Organization: []string{"pathgrant tests"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
	}, nil
}
