import { graphql } from "../../gql";

/** An application in an environment: its release in service (null fields when none) and its last failure. */
export const InventoryCellFragment = graphql(`
  fragment InventoryCell on InventoryEntry {
    tenant
    application
    environment
    deploymentId
    artifact {
      name
      version
    }
    sha256
    deployedAt
    deployedBy
    previous {
      deploymentId
      artifact {
        name
        version
      }
      deployedAt
    }
    lastFailure {
      deploymentId
      step
      error
      finishedAt
      rollback
    }
    promotionTargets
  }
`);

export const EnvironmentsPageQuery = graphql(`
  query EnvironmentsPage {
    inventory {
      ...InventoryCell
    }
    activity(first: 200) {
      ...InFlight
    }
  }
`);

export const InFlightFragment = graphql(`
  fragment InFlight on Deployment {
    id
    tenant
    application
    environment
    state
    updatedAt
    artifact {
      version
    }
    currentStep
  }
`);

export const EnvironmentsFeedSubscription = graphql(`
  subscription EnvironmentsFeed {
    activity {
      kind
      deployment {
        ...InFlight
      }
    }
  }
`);

export const FreezeWindowFragment = graphql(`
  fragment FreezeWindowView on FreezeWindow {
    rule
    start
    end
    recurring
    cron
    timeZone
  }
`);

export const FreezeCalendarQuery = graphql(`
  query FreezeCalendar($tenant: String, $application: String!, $environment: String!, $to: Time) {
    freezeCalendar(tenant: $tenant, application: $application, environment: $environment, to: $to) {
      from
      to
      windows {
        ...FreezeWindowView
      }
    }
  }
`);

/** The freeze calendars of every cell of the matrix, in one request. */
export const EnvironmentsFreezesQuery = graphql(`
  query EnvironmentsFreezes($environments: [EnvironmentRef!]!) {
    freezeCalendars(environments: $environments) {
      tenant
      application
      environment
      calendar {
        from
        to
        windows {
          ...FreezeWindowView
        }
      }
    }
  }
`);

/** One environment's page: the release in service, the last failure, a page of its history, and what the viewer may do. */
export const EnvironmentPageQuery = graphql(`
  query EnvironmentPage($tenant: String!, $application: String!, $environment: String!, $first: Int!, $after: String) {
    environment(tenant: $tenant, application: $application, environment: $environment) {
      tenant
      application
      environment
      inService {
        ...InventoryCell
        previous {
          deploymentId
          artifact {
            name
            version
          }
          deployedAt
          deployedBy
          canRollbackTo
        }
      }
      lastFailure {
        deploymentId
        step
        error
        finishedAt
        rollback
      }
      history(first: $first, after: $after) {
        nodes {
          id
          state
          requester
          createdAt
          finishedAt
          durationMs
          dryRun
          artifact {
            name
            version
          }
          rollback {
            state
          }
          canRollbackTo
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`);
