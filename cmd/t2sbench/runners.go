package main

// Runner packages register themselves with the runners registry (and their
// sim responders with runners/llm) in init; the CLI links the ones it
// offers. Add one line per method package as it lands.
import (
	_ "github.com/t2sbench/t2sbench/runners/alphasql"
	_ "github.com/t2sbench/t2sbench/runners/baseline"
	_ "github.com/t2sbench/t2sbench/runners/iesr"
	_ "github.com/t2sbench/t2sbench/runners/reactdsl"
	_ "github.com/t2sbench/t2sbench/runners/steinersql"
)
