module github.com/gozk/gozk

go 1.26
