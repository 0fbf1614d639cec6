import type { OAuthClient } from './client.ts';
import { builtinCliClient } from './client.ts';
import type { ClientMetadataDocuments } from './metadata-document.ts';
import type { RegisteredClients } from './registered-clients.ts';

/**
 * Finds a client by `client_id` across its sources, in a fixed order: the
 * operator's web clients, the built-in CLI client, metadata-document URLs
 * (fetched; failures throw invalid_client), then registrations. `null` means
 * no such client.
 */
export class ClientDirectory {
  readonly #web: ReadonlyMap<string, OAuthClient>;
  readonly #registered: RegisteredClients;
  readonly #documents: ClientMetadataDocuments | null;

  constructor(options: {
    web: ReadonlyMap<string, OAuthClient>;
    registered: RegisteredClients;
    documents: ClientMetadataDocuments | null;
  }) {
    this.#web = options.web;
    this.#registered = options.registered;
    this.#documents = options.documents;
  }

  async find(clientId: string): Promise<OAuthClient | null> {
    if (clientId === '') return null;
    const web = this.#web.get(clientId);
    if (web !== undefined) return web;
    if (clientId === builtinCliClient.clientId) return builtinCliClient;
    if (this.#documents?.isDocumentUrl(clientId)) return this.#documents.resolve(clientId);
    return this.#registered.find(clientId);
  }

  /** Marks a registered client as in use (no-op for the other kinds). */
  async touch(client: OAuthClient): Promise<void> {
    if (client.kind === 'registered') await this.#registered.touch(client.clientId);
  }
}
