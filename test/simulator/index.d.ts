/** Types of the simulator's programmatic entry point (see README.md beside this file). */
export interface SimulatorClient {
	clientId: string;
	clientSecret: string;
	realm: string;
	realms: string[];
	tokenUrl: string;
	scopes: string[];
	defaultScopes: string[];
}

export interface SimulatorRealm {
	name: string;
	issuer: string;
	tokenUrl: string;
	certsUrl: string;
}

export interface SimulatorOptions {
	port?: number;
	host?: string;
	tokenLifetimeSeconds?: number;
	estimatePrefix?: string;
	signingSecret?: string;
	signatureHeader?: string;
	webhookDelayMs?: number;
	/** Lifecycle and delete events not answered 2xx are sent again (same bytes), up to this many times (0). */
	webhookRetries?: number;
	webhookRetryDelayMs?: number;
	/** Requests per second over the consent and estimate APIs; more are answered 429, Retry-After: 1 (0 = off). */
	rateLimitPerSecond?: number;
	/** Opaque reference tokens (`sim_…`, no dots) instead of RS256 JWTs. */
	opaqueTokens?: boolean;
	autoLifecycle?: boolean;
	consentResponseWrapper?: boolean;
	log?: boolean | ((line: string) => void);
}

export interface SimulatorHandle {
	url: string;
	port: number;
	host: string;
	authUrl: string;
	consentBaseUrl: string;
	estimateBaseUrl: string;
	estimatePrefix: string;
	controlUrl: string;
	realms: Record<string, SimulatorRealm>;
	clients: Record<string, SimulatorClient>;
	signingSecret: string;
	signatureHeader: string;
	close(): Promise<void>;
}

/** One entry of the request log (`GET /__sim/requests`), secrets redacted. */
export interface SimulatorRequest {
	seq: number;
	time: string;
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, unknown>;
	authScheme: string | null;
	authClientId?: string | null;
	tokenScope?: string | null;
	tokenJti?: string | null;
	contentType: string | null;
	body: unknown;
	status: number | null;
	fault?: unknown;
	aborted?: boolean;
}

/** A fault for the next `count` matching requests (`POST /__sim/faults`). */
export interface SimulatorFault {
	count?: number;
	status?: number;
	retryAfter?: number;
	latencyMs?: number;
	drop?: boolean;
	truncate?: number;
	chunked?: boolean;
	/** With status: the answer's body, a template echoing the request ({{token}}, {{authorization}}, {{body.<field>}}, {{rawBody}}). */
	body?: string;
	contentType?: string;
	/** With status: answer headers, templates like body. */
	headers?: Record<string, string>;
	match?: { method?: string; pathPrefix?: string };
}

export function startSimulator(options?: SimulatorOptions): Promise<SimulatorHandle>;
