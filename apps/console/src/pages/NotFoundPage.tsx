import { Link } from 'react-router';

export default function NotFoundPage() {
  return (
    <div className="content-page">
      <h1>Nothing here</h1>
      <p>
        This page does not exist. <Link to="/calendar">Back to the calendar</Link>
      </p>
    </div>
  );
}
