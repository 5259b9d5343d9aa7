// One destination of a conversation's egress policy (checked and normalised by egress/egress-policy.ts).
export interface EgressDestination {
  /** Lower-case host name, or `*.` and a name for its subdomains. */
  host?: string;
  /** Address range in canonical form: `10.0.0.0/8`, `2001:db8::/32`. */
  cidr?: string;
  /** Allowed ports, ascending; empty for any port. */
  ports: number[];
}
