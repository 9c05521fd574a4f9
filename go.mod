module tearcam

go 1.26.0

require (
	github.com/mattn/go-isatty v0.0.24
	github.com/otiai10/gosseract/v2 v2.4.1
	github.com/spf13/cobra v1.10.2
	github.com/stretchr/testify v1.12.1
	gocv.io/x/gocv v0.31.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
