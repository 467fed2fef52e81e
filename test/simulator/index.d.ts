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

export function startSimulator(options?: SimulatorOptions): Promise<SimulatorHandle>;
