package main

import (
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/olekukonko/tablewriter"
	_ "github.com/sashabaranov/go-openai"
	_ "github.com/schollz/progressbar/v3"
	_ "golang.org/x/sync/errgroup"
	_ "gonum.org/v1/gonum/graph/simple"
	_ "gonum.org/v1/gonum/stat/distuv"
	_ "gonum.org/v1/plot"
	_ "gopkg.in/yaml.v3"
)
