// How the gRPC API is to guard itself, as configured (flags over environment); the server reads it.
export interface ApiSecurityConfig {
  /** PEM server certificate (chain) and key; both or neither (ENCLAVE_TLS_CERT, ENCLAVE_TLS_KEY). */
  tlsCertFile: string;
  tlsKeyFile: string;
  /** PEM CA bundle: when set, callers must present a certificate it signed (ENCLAVE_TLS_CLIENT_CA). */
  tlsClientCaFile: string;
  /** The token file; empty for none (every caller is the implicit tenant) (ENCLAVE_TOKENS_FILE). */
  tokensFile: string;
  /** Listen on a non-loopback address without TLS or tokens anyway (ENCLAVE_INSECURE_REMOTE=on). */
  allowInsecureRemote: boolean;
}

export const NO_API_SECURITY: ApiSecurityConfig = { tlsCertFile: "", tlsKeyFile: "", tlsClientCaFile: "", tokensFile: "", allowInsecureRemote: false };
