//go:build linux

package testhost

// What the host serves, named for tests outside this package that run
// the tools against it and check what they fetched: its name, the
// repository's one file, the npm package, the Python project and the Go
// module.
const (
	HostName    = hostName      // the name the HTTPS certificate carries besides the address
	RepoReadme  = readme        // the README a clone of the repository holds
	NPMPackage  = npmName       // the registry's one package
	NPMVersion  = npmVersion    // and its one version
	PyPIProject = pypiProject   // the index's one project, as pip names it
	PyPIDist    = pypiDist      // the package folder its wheel installs
	PyPIVersion = pypiVersion   // its one version
	PyPIWheel   = pypiWheelName // the wheel's file name, as pip download saves it
	GoModule    = goModule      // the proxy's one module
	GoVersion   = goVersion     // and its one version
	GoSource    = goSource      // the module's mod.go
)
