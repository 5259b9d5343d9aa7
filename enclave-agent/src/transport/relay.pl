# enclave-relay SOCKET, in Perl: joins its stdin/stdout to the agent's unix socket inside an enclosure
# (what relay.ts does, for images that have Perl: it starts in a few milliseconds and holds about
# 2 MB where Node holds about 14 MB, and one relay stays up per enclosure while the control plane is
# connected). The agent may be starting or restarting: its socket is waited for, boundedly.
use strict;
use warnings;
use Socket;

my $path = shift;
if (!defined $path || $path eq '') {
    print STDERR "usage: enclave-relay SOCKET\n";
    exit 2;
}
my $deadline = time + 15;
my $s;
while (1) {
    socket($s, AF_UNIX, SOCK_STREAM, 0) or do { print STDERR "enclave-relay: socket: $!\n"; exit 1 };
    last if connect($s, pack_sockaddr_un($path));
    my $err = "$!";
    my $not_yet = $!{ENOENT} || $!{ECONNREFUSED};
    close $s;
    if ($not_yet && time < $deadline) {
        select(undef, undef, undef, 0.005);
        next;
    }
    print STDERR "enclave-relay: cannot reach the agent at $path: $err\n";
    exit 1;
}
binmode STDIN;
binmode STDOUT;

sub write_all {
    my ($fh, $buf) = @_;
    my $off = 0;
    while ($off < length $buf) {
        my $w = syswrite($fh, $buf, length($buf) - $off, $off);
        if (!defined $w) {
            next if $!{EINTR} || $!{EAGAIN};
            return 0;
        }
        $off += $w;
    }
    return 1;
}

my $in_open = 1;
while (1) {
    my $rin = '';
    vec($rin, fileno(STDIN), 1) = 1 if $in_open;
    vec($rin, fileno($s), 1) = 1;
    my $n = select(my $rout = $rin, undef, undef, undef);
    if ($n < 0) {
        next if $!{EINTR};
        exit 0;
    }
    if ($in_open && vec($rout, fileno(STDIN), 1)) {
        my $r = sysread(STDIN, my $buf, 65536);
        if (!$r) {
            # The control plane hung up: let the agent see the connection end.
            $in_open = 0;
            shutdown($s, 1);
        } else {
            write_all($s, $buf) or exit 0;
        }
    }
    if (vec($rout, fileno($s), 1)) {
        my $r = sysread($s, my $buf, 65536);
        exit 0 if !$r;
        write_all(\*STDOUT, $buf) or exit 0;
    }
}
