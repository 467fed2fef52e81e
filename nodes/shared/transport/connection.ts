import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { validateHttpUrl } from '../identifiers';
import { credentialSecrets, makeRedactor } from './redact';
import type { LearningRedactor } from './redact';
import type { Pacer } from '../pacer';

export interface ConnectionSpec {
	credentialType: string;
	/** The credential type's secret fields (typeOptions.password, redact.ts passwordFieldsOf). */
	passwordFields: readonly string[];
	baseUrlHint: string;
	/** A credential field the token endpoint needs, checked before any request: what to fix, or undefined. */
	credentialProblem?: (
		credentials: IDataObject,
	) => { message: string; description: string } | undefined;
}

export interface Connection {
	credentialType: string;
	passwordFields: readonly string[];
	baseUrl: string;
	host: string;
	production: boolean;
	redact: LearningRedactor;
	/** Set by the item runner. */
	pacer?: Pacer;
}

export async function loadConnection(
	ctx: IExecuteFunctions,
	spec: ConnectionSpec,
): Promise<Connection> {
	const credentials = await ctx.getCredentials(spec.credentialType);
	const production = credentials.environment === 'production';
	const credentialProblem = spec.credentialProblem?.(credentials as IDataObject);
	if (credentialProblem) {
		throw new NodeOperationError(ctx.getNode(), credentialProblem.message, {
			itemIndex: 0,
			description: credentialProblem.description,
		});
	}
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
	const redact = makeRedactor(credentialSecrets(credentials as IDataObject, spec.passwordFields));
	return {
		credentialType: spec.credentialType,
		passwordFields: spec.passwordFields,
		baseUrl,
		host: new URL(baseUrl).host,
		production,
		redact,
	};
}

// n8n saves a token fetched during the request (the Consent Flow credential's Access Token field, or
// n8n's OAuth2 token data): read again, the redactor learns it.
export async function learnCredentials(
	ctx: IExecuteFunctions,
	connection: Connection,
): Promise<void> {
	try {
		const credentials = await ctx.getCredentials(connection.credentialType);
		connection.redact.learn(
			...credentialSecrets(credentials as IDataObject, connection.passwordFields),
		);
	} catch {
		// the request's own headers (retry.ts) still taught it the token that was sent
	}
}
