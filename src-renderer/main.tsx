// Entry of the UI: find the admin token, then render the app.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { resolveAdminToken } from './api/admin-token';
import { App } from './App';
import { useSessionStore } from './stores/session-store';
// Read before the first render, so a pinned theme shows from the first frame.
import './stores/theme-store';
import './styles/base.css';
import './styles/components.css';
import './styles/pages.css';
import './styles/team-gateway.css';

useSessionStore.getState().start(resolveAdminToken());

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('index.html has no #root element');
createRoot(rootElement).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
