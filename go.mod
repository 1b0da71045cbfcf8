module pathgrant

go 1.26.8

require (
	github.com/fsnotify/fsnotify v1.10.1 // indirect
	go.etcd.io/bbolt v1.5.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
