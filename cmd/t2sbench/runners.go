package main

// Runner packages register themselves with the runners registry in init;
// the CLI links the ones it offers.
import (
	_ "github.com/t2sbench/t2sbench/runners/baseline"
)
