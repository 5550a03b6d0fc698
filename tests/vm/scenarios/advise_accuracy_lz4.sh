#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# advise_accuracy_lzorle.sh with lz4 as the primary: see there for what is compared.
PRIMARY=lz4
. /vm/scenarios/advise_accuracy_lzorle.sh
