// Package refserver pins the reference server's releases: go.mod's tool directives name the
// kube-apiserver (k8s.io/kubernetes) and etcd that scripts/refserver builds, with every staging
// module replaced by its published version. The package has no code; it exists so that
// `go vet ./...` has a package to check in this module, as in the oracle's.
package refserver
