#!/bin/sh
# The environment, NUL-separated (a value may hold a newline).
env -0 >env.bin
