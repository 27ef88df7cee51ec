package main

import (
	"fmt"
	"io"
)

func registryCmd(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "pluginhost registry: not wired yet")
	return 2
}

func doctor(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "pluginhost doctor: not wired yet")
	return 2
}
