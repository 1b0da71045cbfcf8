module pathgrant

go 1.26.8

require (
	github.com/fsnotify/fsnotify v1.10.1
	go.etcd.io/bbolt v1.5.0
	golang.org/x/sys v0.50.0
	mvdan.cc/sh/v3 v3.14.1
)
