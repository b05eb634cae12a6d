// Short confirmations ("Copied") announced politely to screen readers and fading on their own.
import { create } from 'zustand';

export interface Toast {
  id: number;
  message: string;
  tone: 'success' | 'error';
}

interface ToastState {
  toasts: Toast[];
  show(message: string, tone?: Toast['tone']): void;
  dismiss(id: number): void;
}

let nextToastId = 1;
const TOAST_LIFETIME_MS = 2600;

export const useToastStore = create<ToastState>()((set, get) => ({
  toasts: [],
  show(message, tone = 'success') {
    const id = nextToastId++;
    set({ toasts: [...get().toasts.slice(-2), { id, message, tone }] });
    setTimeout(() => get().dismiss(id), TOAST_LIFETIME_MS);
  },
  dismiss(id) {
    set({ toasts: get().toasts.filter((toast) => toast.id !== id) });
  },
}));
