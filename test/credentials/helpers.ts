/**
 * Helpers of the credential tests: n8n expressions resolved with n8n-workflow's own engine, the way
 * n8n's CredentialsHelper does (defaults applied with NodeHelpers.getNodeParameters, then `$self` =
 * the credential data), and the Consent Flow credential's preAuthentication against a fake token
 * endpoint.
 */
import { NodeHelpers, Workflow } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeParameters,
	INodeTypes,
} from 'n8n-workflow';
import { ConsentFlowOAuth2Api } from '../../credentials/ConsentFlowOAuth2Api.credentials';

/** A credential's data with the defaults of its form applied, as n8n applies them. */
function withDefaults(credential: ICredentialType, data: INodeParameters): INodeParameters {
	return NodeHelpers.getNodeParameters(
		credential.properties,
		data,
		true,
		false,
		null,
		null,
	) as INodeParameters;
}

export function resolve(credential: ICredentialType, data: INodeParameters): INodeParameters {
	const nodeTypes = {
		getByName: () => ({ description: { properties: [] } }),
		getByNameAndVersion: () => ({ description: { properties: [] } }),
		getKnownTypes: () => ({}),
	} as unknown as INodeTypes;
	const node: INode = {
		id: 'n',
		name: 'Temp-Node',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const full = withDefaults(credential, data);
	return workflow.expression.getParameterValue(
		full,
		null,
		0,
		0,
		node.name,
		[],
		'internal',
		{},
		undefined,
		false,
		full,
	) as INodeParameters;
}

/** Resolves an expression of the credential test (written over $credentials) like a hidden field. */
export function evaluateTest(
	credential: ICredentialType,
	expression: string,
	data: INodeParameters,
) {
	return resolve(
		{
			...credential,
			properties: [
				...credential.properties,
				{
					displayName: 'T',
					name: 't',
					type: 'hidden',
					default: expression.replace(/\$credentials/g, '$self'),
				},
			],
		} as ICredentialType,
		data,
	).t;
}

export const credential = new ConsentFlowOAuth2Api();
export const base = {
	identityProviderUrl: 'https://auth.example',
	apiBaseUrl: 'https://api.example',
	clientId: 'c',
	clientSecret: 'se:cr et&1234',
};
/** The credential data as n8n hands it to preAuthentication: defaults applied. */
export const full = (data: INodeParameters) =>
	withDefaults(credential, data) as ICredentialDataDecryptedObject;

interface Sent {
	url: string;
	headers: Record<string, string>;
	body: Record<string, string>;
}
/** preAuthentication against a fake token endpoint: what it sent, what it returned or threw. */
export async function fetchWith(data: INodeParameters, answer: unknown) {
	const sent: Sent[] = [];
	const helper = {
		helpers: {
			httpRequest: async (options: IHttpRequestOptions) => {
				sent.push({
					url: String(options.url),
					headers: options.headers as Record<string, string>,
					body: Object.fromEntries(new URLSearchParams(String(options.body))),
				});
				if (answer instanceof Error) throw answer;
				return answer;
			},
		},
	} as unknown as IHttpRequestHelper;
	try {
		const result = await credential.preAuthentication.call(helper, full(data));
		return { sent, result, error: undefined };
	} catch (error) {
		return { sent, result: undefined, error: error as Error & Record<string, unknown> };
	}
}
export const answer = (statusCode: number, body: unknown) => ({ statusCode, body, headers: {} });
export const TOKEN = (realm: string) =>
	`https://auth.example/realms/${realm}/protocol/openid-connect/token`;
export const flow = { ...base, realm: 'flows' };
export const loan = { ...base, service: 'loanApplication' };

export const DECIDES_ALL =
	/Realm .*Client ID and Client Secret .*Environment and Identity Provider URL/;
