/**
 * The connection of an action node: the credential's API Base URL (checked, https in
 * Production), and the redactor of the credential's secrets. Read once per execution.
 */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { validateHttpUrl } from '../identifiers';
import { credentialSecrets, makeRedactor } from './redact';
import type { LearningRedactor } from './redact';
import type { Pacer } from '../pacer';

export interface ConnectionSpec {
	/** n8n name of the credential type, e.g. `consentFlowOAuth2Api`. */
	credentialType: string;
	/** What to tell the user when the API Base URL is wrong. */
	baseUrlHint: string;
}

export interface Connection {
	credentialType: string;
	/** API Base URL without trailing slashes. */
	baseUrl: string;
	/** Host (and port) of the API, for messages. */
	host: string;
	/** The credential's Environment is Production (credentials without one: false). */
	production: boolean;
	/**
	 * Blanks the credential's secrets (client secret, Basic value, tokens), token-like text and
	 * identity numbers; it learns the tokens of later requests (`learnCredentials`).
	 */
	redact: LearningRedactor;
	/** Paces every attempt of this execution (adaptive concurrency); set by the item runner. */
	pacer?: Pacer;
}

/** Reads and checks the credential (no request). */
export async function loadConnection(
	ctx: IExecuteFunctions,
	spec: ConnectionSpec,
): Promise<Connection> {
	const credentials = await ctx.getCredentials(spec.credentialType);
	const production = credentials.environment === 'production';
	const baseUrl = String(credentials.apiBaseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const problem = baseUrl ? validateHttpUrl(baseUrl, production) : 'is empty';
	if (problem) {
		throw new NodeOperationError(ctx.getNode(), `The credential's "API Base URL" ${problem}`, {
			itemIndex: 0,
			description: spec.baseUrlHint,
		});
	}
	// Production: the client secret and tokens never travel in clear text (checked before any request)
	if (production) {
		for (const [field, label] of [
			['identityProviderUrl', 'Identity Provider URL'],
			['accessTokenUrl', 'Access Token URL'],
		]) {
			const value = String(credentials[field] ?? '').trim();
			if (value && !/^https:\/\//i.test(value)) {
				throw new NodeOperationError(
					ctx.getNode(),
					`The credential's "${label}" must use https when the credential environment is Production`,
					{
						itemIndex: 0,
						description:
							'In Production the client secret and access tokens are only sent over https. Change the address to https:// (Test may use http).',
					},
				);
			}
		}
	}
	const redact = makeRedactor(credentialSecrets(credentials as IDataObject));
	return {
		credentialType: spec.credentialType,
		baseUrl,
		host: new URL(baseUrl).host,
		production,
		redact,
	};
}

/**
 * After a failed request: the credential as n8n has it now. n8n's OAuth2 helper saves a token it
 * fetched or refreshed during the request, so reading the credential again gives the redactor
 * tokens it could not know before (a failure to read is no reason to fail differently).
 */
export async function learnCredentials(ctx: IExecuteFunctions, connection: Connection): Promise<void> {
	try {
		const credentials = await ctx.getCredentials(connection.credentialType);
		connection.redact.learn(...credentialSecrets(credentials as IDataObject));
	} catch {
		// the request's own headers (retry.ts) still taught it the token that was sent
	}
}
