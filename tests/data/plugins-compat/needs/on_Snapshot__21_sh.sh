#!/bin/sh
echo ok >ok.txt
