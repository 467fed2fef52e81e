// Three projects: `unit` (pure modules and nodes against the simulator over real HTTP),
// `simulator` (the simulator's own tests) and `e2e` (a real n8n with the packed package).
const tsJest = ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json', diagnostics: false }];

module.exports = {
	projects: [
		{
			displayName: 'unit',
			testEnvironment: 'node',
			roots: ['<rootDir>/test'],
			testMatch: ['<rootDir>/test/{nodes,credentials,scripts,examples}/**/*.test.{ts,js}'],
			transform: { '^.+\\.ts$': tsJest },
		},
		{
			displayName: 'simulator',
			testEnvironment: 'node',
			roots: ['<rootDir>/test'],
			testMatch: ['<rootDir>/test/simulator/**/*.test.{ts,js}'],
			transform: { '^.+\\.ts$': tsJest },
		},
		{
			displayName: 'e2e',
			testEnvironment: 'node',
			roots: ['<rootDir>/test'],
			testMatch: ['<rootDir>/test/e2e/**/*.test.{ts,js}'],
			transform: { '^.+\\.ts$': tsJest },
			slowTestThreshold: 120,
		},
	],
};
