#!/usr/bin/perl
# reaper.pl COMMAND... : runs COMMAND as a child subreaper and reaps every process orphaned under
# it until none is left, then exits with COMMAND's status.
#
# A simulated node's processes all share the machine's PID namespace. When `cluster kill` takes
# a node down, its daemon dies with its children, and they are handed to the nearest subreaper
# above them. Without this one that is PID 1, which inside a container or a CI runner may never
# reap, and the dead node's PIDs would stay taken: transparent mode's CRIU restores a node's
# processes on a spare under those very PIDs. This process runs outside the node's network
# namespace, so killing the node spares it.
use strict;
use warnings;
require 'syscall.ph';

@ARGV or die "reaper: no command given\n";
my $PR_SET_CHILD_SUBREAPER = 36;
syscall(&SYS_prctl, $PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
  or die "reaper: cannot become a child subreaper: $!\n";
my $child = fork() // die "reaper: cannot fork: $!\n";
if ($child == 0) {
  exec { $ARGV[0] } @ARGV or die "reaper: cannot run $ARGV[0]: $!\n";
}
my $status = 0;
while ((my $pid = waitpid(-1, 0)) > 0) {
  $status = $? if $pid == $child;
}
exit($status & 127 ? 128 + ($status & 127) : $status >> 8);
