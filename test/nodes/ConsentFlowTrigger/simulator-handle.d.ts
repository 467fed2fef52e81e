// The parts of the simulator handle (test/simulator/README.md) that these tests use.
export interface SimulatorClient {
	clientId: string;
	clientSecret: string;
	tokenUrl: string;
}

export interface Simulator {
	url: string;
	controlUrl: string;
	consentBaseUrl: string;
	signingSecret: string;
	signatureHeader: string;
	clients: Record<string, SimulatorClient>;
	close(): Promise<void>;
}

export function startSimulator(options?: {
	port?: number;
	webhookDelayMs?: number;
	autoLifecycle?: boolean;
	signingSecret?: string;
	signatureHeader?: string;
}): Promise<Simulator>;
