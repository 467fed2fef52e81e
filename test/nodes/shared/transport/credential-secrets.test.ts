/**
 * The redactor's knowledge (nodes/shared/transport/redact.ts): which secrets a credential holds,
 * which a request carried, and the forms a service may echo them in. Oracles: Node's own
 * Buffer base64, encodeURIComponent and JSON.stringify, and the header n8n's OAuth2 client sends
 * to the token endpoint (RFC 6749 §2.3.1: form-encoded client id and secret, base64 of `id:secret`).
 */
import { credentialsCarriedBy } from '../../../../nodes/shared/n8n-compat';
import {
	credentialSecrets,
	makeRedactor,
	passwordFieldsOf,
} from '../../../../nodes/shared/transport/redact';
import { CONNECTION as CONSENT } from '../../../../nodes/ConsentFlow/api';
import { CONNECTION as ESTIMATE } from '../../../../nodes/RealEstateEstimate/api';
import { ConsentFlowOAuth2Api } from '../../../../credentials/ConsentFlowOAuth2Api.credentials';
import { RealEstateEstimateOAuth2Api } from '../../../../credentials/RealEstateEstimateOAuth2Api.credentials';

const clientId = 'client id+ø';
const clientSecret = 'se/cr"et&value ø';

test('a credential: its client secret, stored tokens and both Basic header values', () => {
	const fields = ['clientSecret', 'accessToken'];
	const secrets = credentialSecrets(
		{
			clientId,
			clientSecret,
			accessToken: 'own-token-1234',
			oauthTokenData: {
				access_token: 'access-1234',
				refresh_token: 'refresh-1234',
				id_token: 'id-1234',
				token_type: 'bearer',
			},
		},
		fields,
	);
	const form = (text: string) => encodeURIComponent(text).replace(/%20/g, '+');
	expect(secrets).toEqual([
		clientSecret,
		'own-token-1234',
		'access-1234',
		'refresh-1234',
		'id-1234',
		Buffer.from(`${clientId}:${clientSecret}`).toString('base64'),
		Buffer.from(`${form(clientId)}:${form(clientSecret)}`).toString('base64'),
	]);
	expect(credentialSecrets(undefined, fields)).toEqual([]);
	expect(
		credentialSecrets({ clientId, clientSecret: '', oauthTokenData: 'not an object' }, fields),
	).toEqual([]);
});

// A new secret field of a credential is redacted because it is one (typeOptions.password), not by its name.
test.each([
	['Consent Flow', CONSENT, new ConsentFlowOAuth2Api()],
	['Real Estate Estimate', ESTIMATE, new RealEstateEstimateOAuth2Api()],
])(
	'%s: every password field of the credential is redacted, and only those',
	(_, spec, credential) => {
		const password = credential.properties.filter((p) => p.typeOptions?.password === true);
		expect(password.length).toBeGreaterThan(0);
		expect([...spec.passwordFields].sort()).toEqual(password.map((p) => p.name).sort());
		const values = Object.fromEntries(password.map((p) => [p.name, `value-of-${p.name}-0123`]));
		const added = { name: 'addedLaterSecret', typeOptions: { password: true } };
		const fields = passwordFieldsOf([...credential.properties, added]);
		const secrets = credentialSecrets(
			{ ...values, addedLaterSecret: 'new-field-4567', realm: 'r' },
			fields,
		);
		const redact = makeRedactor(secrets);
		expect(redact(`${Object.values(values).join(' ')} new-field-4567 realm r`)).not.toMatch(
			/value-of|new-field/,
		);
		expect(secrets).not.toContain('r');
	},
);

test('a request: the Authorization values it carried, whole and without the scheme, from the options and the error', () => {
	expect(
		credentialsCarriedBy({
			headers: {
				Authorization: 'Bearer tok-5678',
				'proxy-authorization': 'Basic cHJveHk6cHc=',
				Accept: 'application/json',
			},
		}),
	).toEqual(['Bearer tok-5678', 'tok-5678', 'Basic cHJveHk6cHc=', 'cHJveHk6cHc=']);
	expect(credentialsCarriedBy({})).toEqual([]);
	expect(credentialsCarriedBy({ headers: { authorization: ['Bearer x'] } })).toEqual([]);
	// axios keeps the request's headers in the error's config (an AxiosHeaders object with toJSON), under causes
	const axiosHeaders = { toJSON: () => ({ Authorization: 'Bearer from-error-99' }) };
	const error = { message: 'wrapped', cause: { config: { headers: axiosHeaders } } };
	expect(credentialsCarriedBy({ headers: undefined }, error)).toEqual([
		'Bearer from-error-99',
		'from-error-99',
	]);
});

test('a learned secret is blanked as sent, URL-encoded and JSON-escaped; short values are not searched', () => {
	const redact = makeRedactor([]);
	const token = 'tok/with"odd&chars';
	expect(redact(`x ${token} y`)).toBe(`x ${token} y`);
	redact.learn(token, 'abc', undefined, 42);
	for (const form of [
		token,
		encodeURIComponent(token),
		JSON.stringify(token).slice(1, -1),
		JSON.stringify(token).slice(1, -1).replace(/\//g, '\\/'),
	]) {
		expect(redact(`x ${form} y`)).toBe('x *** y');
	}
	expect(redact('abc stays')).toBe('abc stays');
});

test('a secret containing another is blanked whole', () => {
	const redact = makeRedactor(['secret', 'secret-longer-value']);
	expect(redact('secret-longer-value')).toBe('***');
});
