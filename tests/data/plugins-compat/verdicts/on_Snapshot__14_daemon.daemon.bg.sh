#!/bin/sh
# a daemon that SIGTERM ends (its default action), having printed nothing
exec sleep 100
