// The local socket's name inside asimov serve's data directory (its own module: the CLI's client needs it
// without loading the server).
export const SOCKET_NAME = 'api.sock';
