// Provider credentials as the key store keeps them and a provider call carries them: which fields a
// provider takes, which are secret, and their values for one call.

/** Credentials for one call, from request headers or a virtual key; decrypted only for this request. */
export interface ProviderCredentials {
  /** The provider token: `Authorization: Bearer <token>` from the client, or a stored secret. */
  token?: string;
  azure?: { resourceName?: string; deploymentId?: string; apiVersion?: string; modelName?: string };
  vertex?: { projectId?: string; region?: string; requestType?: string; serviceAccountJson?: string };
  bedrock?: { accessKeyId?: string; secretAccessKey?: string; sessionToken?: string; region?: string };
}

export interface CredentialField {
  /** Key in `ProviderCredentials` terms: `token`, or `azure.resourceName`, `bedrock.region` ... */
  name: string;
  label: string;
  secret: boolean;
  required: boolean;
  placeholder?: string;
  /** The request header that carries it (spec §5.3), for docs and the UI. */
  header?: string;
  /** Another field that stands in for this required one when given (a service account key for a token). */
  alternative?: string;
}

/** A header's parameter name in the spec (§5.3): `x-gateway-cloud-a-resource-name` → `cloud_a_resource_name`. */
export function credentialParameter(header: string): string {
  return header.toLowerCase().replace(/^x-(gateway-)?/, '').replace(/-/g, '_');
}

/** Sets one field (`token`, `azure.resourceName` …) of a call's credentials; a name of no known group is ignored. */
export function setCredentialField(credentials: ProviderCredentials, name: string, value: string): void {
  if (name === 'token') {
    credentials.token = value;
    return;
  }
  const [group, field] = name.split('.');
  if (field === undefined || (group !== 'azure' && group !== 'vertex' && group !== 'bedrock')) return;
  const section: Record<string, string> = credentials[group] ?? {};
  section[field] = value;
  credentials[group] = section;
}
