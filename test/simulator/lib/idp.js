'use strict';

// Identity provider: OAuth 2.0 client credentials token endpoint (Keycloak-style paths),
// RS256 JWT access tokens and the JWK set that verifies them.

const crypto = require('node:crypto');
const { sendJson, mediaType, safeEqual, base64url } = require('./util');

const COUNTRIES = ['es', 'se', 'fi'];
const ACTIONS = ['create', 'update', 'delete', 'accept'];
const LOAN_APPLICATION_SCOPES = ACTIONS.flatMap((action) =>
	COUNTRIES.map((country) => `loan-application:${action}:${country}`),
);

const REALMS = ['sbl', 'agents-test', 'agents-prod', 'estimate'];
const CONSENT_REALMS = ['sbl', 'agents-test', 'agents-prod'];

/**
 * Demo clients. Secrets are fixed (printed at start) so demo credentials survive a restart. As in
 * Keycloak, a client exists in its realm only: any other realm answers as for an unknown client.
 */
function demoClients() {
	return {
		consent: {
			clientId: 'sbl-demo-client',
			clientSecret: 'sbl-demo-secret-Jm4tQ9vX2pLk7Rw8nC3z',
			realms: ['sbl'],
			scopes: ['sbl', ...LOAN_APPLICATION_SCOPES],
			defaultScopes: ['sbl'],
		},
		limited: {
			clientId: 'sbl-limited-client',
			clientSecret: 'sbl-limited-secret-Hq3Zr8Nc5Vb1Ty6eK2wd',
			realms: ['sbl'],
			scopes: ['loan-application:create:es'],
			defaultScopes: ['loan-application:create:es'],
		},
		// The loan application service's realms agents-test and agents-prod: one client per environment.
		loanApplication: {
			clientId: 'loan-application-demo-client',
			clientSecret: 'loan-application-demo-secret-Tc6Wn1Rq8Zb3',
			realms: ['agents-test'],
			scopes: LOAN_APPLICATION_SCOPES,
			defaultScopes: [],
		},
		loanApplicationProd: {
			clientId: 'loan-application-prod-client',
			clientSecret: 'loan-application-prod-secret-Hv4Kd9Ms2Lx7',
			realms: ['agents-prod'],
			scopes: LOAN_APPLICATION_SCOPES,
			defaultScopes: [],
		},
		estimate: {
			clientId: 'estimate-demo-client',
			clientSecret: 'estimate-demo-secret-Pk2Lw7Xs9Dm4Fg1hT6qa',
			realms: ['estimate'],
			scopes: ['estimate:read'],
			defaultScopes: ['estimate:read'],
		},
		estimateNoScope: {
			clientId: 'estimate-noscope-client',
			clientSecret: 'estimate-noscope-secret-Wb8Yc3Vn6Qj1Ze5uR9mp',
			realms: ['estimate'],
			scopes: [],
			defaultScopes: [],
		},
		// A secret with characters that RFC 6749 §2.3.1 form-encodes before Basic base64 encoding.
		special: {
			clientId: 'sbl-special-client',
			clientSecret: 'sp3cial:secret %+&=/é-Xr7',
			realms: ['sbl'],
			scopes: ['sbl'],
			defaultScopes: ['sbl'],
		},
	};
}

function createIdp(state) {
	const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
	const publicJwk = publicKey.export({ format: 'jwk' });
	const kid = base64url(crypto.createHash('sha256').update(publicJwk.n).digest()).slice(0, 16);
	const jwks = {
		keys: [{ kty: 'RSA', kid, use: 'sig', alg: 'RS256', n: publicJwk.n, e: publicJwk.e }],
	};
	const clients = demoClients();
	const issued = new Map(); // jti → expiry in ms (exact, the exp claim is whole seconds)
	// config opaqueTokens: reference tokens (no dots, nothing to decode) → their claims, as an IdP
	// issuing opaque tokens keeps them; nothing but an exact match finds one in a text
	const opaque = new Map();

	const realmUrl = (realm) => `${state.url}/auth/realms/${realm}`;

	function realmInfo(realm) {
		const base = `${realmUrl(realm)}/protocol/openid-connect`;
		return {
			name: realm,
			issuer: realmUrl(realm),
			tokenUrl: `${base}/token`,
			certsUrl: `${base}/certs`,
		};
	}

	function publicClients() {
		const out = {};
		for (const [name, c] of Object.entries(clients)) {
			out[name] = {
				clientId: c.clientId,
				clientSecret: c.clientSecret,
				realm: c.realms[0],
				realms: [...c.realms],
				tokenUrl: realmInfo(c.realms[0]).tokenUrl,
				scopes: [...c.scopes],
				defaultScopes: [...c.defaultScopes],
			};
		}
		return out;
	}

	function findClient(clientId, realm) {
		return Object.values(clients).find((c) => c.clientId === clientId && c.realms.includes(realm));
	}

	function signToken(realm, client, scopes) {
		const nowMs = Date.now();
		const lifetime = state.config.tokenLifetimeSeconds;
		const jti = crypto.randomUUID();
		const header = { alg: 'RS256', typ: 'JWT', kid };
		const claims = {
			iss: realmUrl(realm),
			sub: client.clientId,
			azp: client.clientId,
			client_id: client.clientId,
			typ: 'Bearer',
			scope: scopes.join(' '),
			iat: Math.floor(nowMs / 1000),
			exp: Math.floor((nowMs + lifetime * 1000) / 1000),
			jti,
		};
		issued.set(jti, nowMs + lifetime * 1000);
		let token;
		if (state.config.opaqueTokens) {
			token = `sim_${crypto.randomBytes(24).toString('base64url')}`;
			opaque.set(token, claims);
		} else {
			const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
			const signature = crypto.sign('RSA-SHA256', Buffer.from(signingInput), privateKey);
			token = `${signingInput}.${base64url(signature)}`;
		}
		// for tests that must find a token wherever it was copied (GET /__sim/tokens)
		state.issuedTokens.push({
			token,
			clientId: client.clientId,
			realm,
			scope: claims.scope,
			issuedAt: new Date(nowMs).toISOString(),
		});
		if (state.issuedTokens.length > 1000) state.issuedTokens.shift();
		return token;
	}

	/**
	 * Verify a bearer token: signature, kid, alg, issuer realm and expiry.
	 * Returns { ok:true, claims, realm, scopes } or { ok:false, reason }.
	 */
	function verifyToken(token, allowedRealms) {
		let claims = opaque.get(String(token || ''));
		if (!claims) {
			const parts = String(token || '').split('.');
			if (parts.length !== 3) return { ok: false, reason: 'malformed token' };
			let header;
			try {
				header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
				claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
			} catch {
				return { ok: false, reason: 'malformed token' };
			}
			if (!header || header.alg !== 'RS256' || header.kid !== kid)
				return { ok: false, reason: 'unknown signing key or algorithm' };
			const valid = crypto.verify(
				'RSA-SHA256',
				Buffer.from(`${parts[0]}.${parts[1]}`),
				publicKey,
				Buffer.from(parts[2], 'base64url'),
			);
			if (!valid) return { ok: false, reason: 'bad signature' };
		}
		const realm = allowedRealms.find((r) => claims.iss === realmUrl(r));
		if (!realm) return { ok: false, reason: `token issuer ${claims.iss} is not accepted here` };
		const expiresMs = issued.has(claims.jti) ? issued.get(claims.jti) : Number(claims.exp) * 1000;
		if (!(Date.now() < expiresMs)) return { ok: false, reason: 'token expired' };
		const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
		return { ok: true, claims, realm, scopes };
	}

	function oauthError(res, status, error, description, headers) {
		sendJson(res, status, { error, error_description: description }, headers);
	}

	/** Decode an RFC 6749 §2.3.1 Basic credential (form-encoded parts); also tries the raw form. */
	function basicCandidates(headerValue) {
		const decoded = Buffer.from(headerValue.replace(/^basic\s+/i, '').trim(), 'base64').toString(
			'utf8',
		);
		const colon = decoded.indexOf(':');
		if (colon < 0) return [];
		const rawId = decoded.slice(0, colon);
		const rawSecret = decoded.slice(colon + 1);
		const formDecode = (s) => {
			try {
				return decodeURIComponent(s.replace(/\+/g, ' '));
			} catch {
				return null;
			}
		};
		const candidates = [];
		const id = formDecode(rawId);
		const secret = formDecode(rawSecret);
		if (id !== null && secret !== null) candidates.push({ id, secret });
		if (id !== rawId || secret !== rawSecret) candidates.push({ id: rawId, secret: rawSecret });
		return candidates;
	}

	/** POST /auth/realms/:realm/protocol/openid-connect/token */
	function token(ctx, realm) {
		const { req, res } = ctx;
		if (req.method !== 'POST') {
			return oauthError(res, 405, 'invalid_request', 'use POST', { allow: 'POST' });
		}
		if (mediaType(req.headers['content-type']) !== 'application/x-www-form-urlencoded') {
			return oauthError(
				res,
				400,
				'invalid_request',
				'Content-Type must be application/x-www-form-urlencoded',
			);
		}
		const form = new URLSearchParams(ctx.rawBody.toString('utf8'));
		const grantType = form.get('grant_type');
		if (!grantType)
			return oauthError(res, 400, 'invalid_request', 'missing form parameter: grant_type');
		if (grantType !== 'client_credentials') {
			return oauthError(
				res,
				400,
				'unsupported_grant_type',
				`grant_type ${grantType} is not supported; use client_credentials`,
			);
		}

		const authHeader = req.headers.authorization;
		const usedBasic = typeof authHeader === 'string' && /^basic\s/i.test(authHeader);
		const basicChallenge = { 'www-authenticate': `Basic realm="${realm}"` };
		let client = null;
		if (usedBasic) {
			const candidates = basicCandidates(authHeader);
			if (candidates.length === 0) {
				return oauthError(
					res,
					401,
					'invalid_client',
					'malformed Basic credentials',
					basicChallenge,
				);
			}
			const bodyId = form.get('client_id');
			if (bodyId && !candidates.some((c) => c.id === bodyId)) {
				return oauthError(
					res,
					400,
					'invalid_request',
					'client_id in the body differs from the Basic credentials',
				);
			}
			for (const c of candidates) {
				const found = findClient(c.id, realm);
				if (found && safeEqual(found.clientSecret, c.secret)) {
					client = found;
					break;
				}
			}
			if (!client)
				return oauthError(
					res,
					401,
					'invalid_client',
					'unknown client or wrong secret',
					basicChallenge,
				);
		} else {
			const id = form.get('client_id');
			const secret = form.get('client_secret');
			if (!id || secret === null) {
				return oauthError(
					res,
					401,
					'invalid_client',
					'client authentication required (Basic header or client_id and client_secret)',
				);
			}
			const found = findClient(id, realm);
			if (!found || !safeEqual(found.clientSecret, secret)) {
				return oauthError(res, 401, 'invalid_client', 'unknown client or wrong secret');
			}
			client = found;
		}

		const requested = (form.get('scope') || '').split(/\s+/).filter(Boolean);
		const scopes = requested.length ? [...new Set(requested)] : [...client.defaultScopes];
		const refused = scopes.filter((s) => !client.scopes.includes(s));
		if (refused.length) {
			return oauthError(
				res,
				400,
				'invalid_scope',
				`client ${client.clientId} may not request scope(s): ${refused.join(' ')}`,
			);
		}
		const accessToken = signToken(realm, client, scopes);
		sendJson(
			res,
			200,
			{
				access_token: accessToken,
				token_type: 'Bearer',
				expires_in: state.config.tokenLifetimeSeconds,
				scope: scopes.join(' '),
			},
			{ pragma: 'no-cache' },
		);
	}

	/** Routes under /auth. Returns true when handled. */
	function handle(ctx, subPath) {
		const m = /^\/realms\/([^/]+)(\/.*)?$/.exec(subPath);
		if (!m) return false;
		const realm = decodeURIComponent(m[1]);
		const rest = m[2] || '';
		if (!REALMS.includes(realm)) {
			sendJson(ctx.res, 404, {
				error: 'realm_not_found',
				error_description: `realm ${realm} does not exist`,
			});
			return true;
		}
		const info = realmInfo(realm);
		if (rest === '/protocol/openid-connect/token') {
			token(ctx, realm);
			return true;
		}
		if (rest === '/protocol/openid-connect/certs' && ctx.req.method === 'GET') {
			sendJson(ctx.res, 200, jwks);
			return true;
		}
		if (rest === '/.well-known/openid-configuration' && ctx.req.method === 'GET') {
			sendJson(ctx.res, 200, {
				issuer: info.issuer,
				token_endpoint: info.tokenUrl,
				jwks_uri: info.certsUrl,
				grant_types_supported: ['client_credentials'],
				token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
				id_token_signing_alg_values_supported: ['RS256'],
			});
			return true;
		}
		if (rest === '' && ctx.req.method === 'GET') {
			sendJson(ctx.res, 200, {
				realm,
				issuer: info.issuer,
				'token-service': `${info.issuer}/protocol/openid-connect`,
			});
			return true;
		}
		return false;
	}

	/** Check the request's bearer token against the realms: { ok, claims, realm, scopes } or { ok:false, reason }. */
	function checkBearer(req, allowedRealms) {
		const header = req.headers.authorization;
		const m = typeof header === 'string' ? /^bearer\s+(\S+)\s*$/i.exec(header) : null;
		return m ? verifyToken(m[1], allowedRealms) : { ok: false, reason: 'missing bearer token' };
	}

	/** Token claims readable without verification (for the request log: scope and jti only). */
	function peekClaims(token) {
		if (opaque.has(String(token))) return opaque.get(String(token));
		try {
			const claims = JSON.parse(
				Buffer.from(String(token).split('.')[1], 'base64url').toString('utf8'),
			);
			return claims && typeof claims === 'object' ? claims : null;
		} catch {
			return null;
		}
	}

	return {
		kid,
		jwks,
		clients,
		realmInfo,
		publicClients,
		verifyToken,
		checkBearer,
		handle,
		peekClaims,
		basicCandidates,
	};
}

module.exports = { createIdp, REALMS, CONSENT_REALMS, LOAN_APPLICATION_SCOPES };
