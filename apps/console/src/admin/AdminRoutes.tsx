import { Text } from '@mantine/core';
import { Route, Routes } from 'react-router-dom';

export function AdminRoutes() {
  return (
    <Routes>
      <Route path="*" element={<Text c="dimmed">Coming next.</Text>} />
    </Routes>
  );
}
