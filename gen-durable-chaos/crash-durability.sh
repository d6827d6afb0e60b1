#!/bin/bash
# Is a kill -9 of the postmaster safe with the chaos database's settings (fsync off)?
# Usage: gen-durable-chaos/crash-durability.sh on|off   (after a build of this module unpacked
# the zonky binaries into target/embedded-pg; needs psql). It runs autocommit inserts through one
# psql session against a fresh cluster with fsync off and synchronous_commit=<on|off>, kill -9s
# the postmaster 3 s in, waits for its backends to exit, restarts it (crash recovery), and
# compares the inserts PostgreSQL acknowledged with the rows that survived. docs/reliability.md
# has the figures: with on, nothing acknowledged is lost; with off, the last ones are.
set -u
mode=$1
B=$(ls -d "$(dirname "$0")"/target/embedded-pg/PG-*/bin | head -1)
B=$(cd "$B" && pwd)
D=${TMPDIR:-/tmp}/crash-durability-$mode; rm -rf $D; mkdir -p $D
# PostgreSQL refuses to run as root; as zonky does, run it in a user namespace then
U=""; [ "$(id -u)" = 0 ] && U="unshare -U"
$U $B/initdb -A trust -U postgres -D $D/data -E UTF-8 >/dev/null 2>&1
P=55$((RANDOM % 90 + 10))
start() { $U $B/pg_ctl -D $D/data -o "-p $P -F -c synchronous_commit=$mode" -l $D/pg.log -w start >/dev/null; }
start
psql -h 127.0.0.1 -p $P -U postgres -X -q -c "create table t (id int primary key)"
( for i in $(seq 1 200000); do echo "insert into t values ($i);"; done ) | psql -h 127.0.0.1 -p $P -U postgres -X > $D/acks.txt 2>/dev/null &
sleep 3
pm=$(head -1 $D/data/postmaster.pid)
kids=$(ps -o pid= --ppid $pm)
kill -9 $pm
for k in $kids; do while kill -0 $k 2>/dev/null; do sleep 0.02; done; done
wait
acked=$(grep -c '^INSERT 0 1' $D/acks.txt)
start
rows=$(psql -h 127.0.0.1 -p $P -U postgres -X -At -c "select count(*) from t")
echo "synchronous_commit=$mode: acknowledged inserts $acked, rows after crash recovery $rows, lost $((acked - rows))"
$U $B/pg_ctl -D $D/data -m fast -w stop >/dev/null
rm -rf "$D"
